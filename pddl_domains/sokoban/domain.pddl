;; Sokoban (IPC-2008 style, no action costs): a player walks on a grid and
;; pushes stones onto goal cells. Uses negative preconditions instead of a
;; "clear" predicate; the four directions are domain constants.
(define (domain sokoban)
  (:requirements :strips :typing :negative-preconditions)
  (:types location direction stone)
  (:constants up down left right - direction)
  (:predicates
    (at-robot ?l - location)                         ;; the player stands on l
    (at ?s - stone ?l - location)                    ;; stone s lies on l
    (occupied ?l - location)                         ;; some stone lies on l
    (move-dir ?from - location ?to - location ?d - direction) ;; to is the neighbour of from in direction d
    (is-goal ?l - location))                         ;; l is a goal cell
  (:action move
    :parameters (?from - location ?to - location ?d - direction)
    :precondition (and (at-robot ?from) (move-dir ?from ?to ?d)
                       (not (occupied ?to)))
    :effect (and (at-robot ?to) (not (at-robot ?from))))
  (:action push
    :parameters (?s - stone ?ppos - location ?from - location ?to - location
                 ?d - direction)
    :precondition (and (at-robot ?ppos) (at ?s ?from)
                       (move-dir ?ppos ?from ?d) (move-dir ?from ?to ?d)
                       (not (occupied ?to)))
    :effect (and (at-robot ?from) (not (at-robot ?ppos))
                 (at ?s ?to) (not (at ?s ?from))
                 (occupied ?to) (not (occupied ?from))))
)
