; A small warehouse: robots drive between connected locations and carry items.
; The example domain of docs/your-domain.md (written for the guide, not tuned on).
(define (domain warehouse)
  (:requirements :strips :typing)
  (:types robot item location)
  (:predicates
    (robot-at ?r - robot ?l - location)
    (item-at ?i - item ?l - location)
    (holding ?r - robot ?i - item)
    (hand-free ?r - robot)
    (connected ?from ?to - location))
  (:action drive
    :parameters (?r - robot ?from ?to - location)
    :precondition (and (robot-at ?r ?from) (connected ?from ?to))
    :effect (and (robot-at ?r ?to) (not (robot-at ?r ?from))))
  (:action pick
    :parameters (?r - robot ?i - item ?l - location)
    :precondition (and (robot-at ?r ?l) (item-at ?i ?l) (hand-free ?r))
    :effect (and (holding ?r ?i) (not (item-at ?i ?l)) (not (hand-free ?r))))
  (:action drop
    :parameters (?r - robot ?i - item ?l - location)
    :precondition (and (robot-at ?r ?l) (holding ?r ?i))
    :effect (and (item-at ?i ?l) (hand-free ?r) (not (holding ?r ?i)))))
