; LoHoRavens' tabletop, symbolically: blocks rest on places (bowls, target poses, zones, the table) or on
; other blocks; one pick-and-place moves a clear block (the suction primitive of cliport/tasks/primitives.py).
; A block bridging two blocks (the hidden pyramid's upper rows) rests on one and leans on the other: neither
; it nor the block it leans on moves until it is taken off (unlean-*); a block is leaned on by one block at most.
; Written by pgt from LoHo-Ravens' task code; scene_graphs/lohoravens.py is its world.
(define (domain lohoravens)
  (:requirements :strips :typing :negative-preconditions :equality)
  (:types block place - support)
  (:predicates (on ?b - block ?s - support) (clear ?b - block)
               (leans-on ?b - block ?s - block) (leaning ?b - block) (leaned-on ?b - block))
  (:action put-on-place
    :parameters (?b - block ?from - place ?to - place)
    :precondition (and (on ?b ?from) (clear ?b) (not (leaned-on ?b)) (not (= ?from ?to)))
    :effect (and (not (on ?b ?from)) (on ?b ?to)))
  (:action unstack-to-place
    :parameters (?b - block ?from - block ?to - place)
    :precondition (and (on ?b ?from) (clear ?b) (not (leaning ?b)) (not (leaned-on ?b)))
    :effect (and (not (on ?b ?from)) (on ?b ?to) (clear ?from)))
  (:action stack
    :parameters (?b - block ?from - place ?onto - block)
    :precondition (and (on ?b ?from) (clear ?b) (not (leaned-on ?b)) (clear ?onto) (not (leaned-on ?onto))
                       (not (= ?b ?onto)))
    :effect (and (not (on ?b ?from)) (on ?b ?onto) (not (clear ?onto))))
  (:action restack
    :parameters (?b - block ?from - block ?onto - block)
    :precondition (and (on ?b ?from) (clear ?b) (not (leaning ?b)) (not (leaned-on ?b)) (clear ?onto)
                       (not (leaned-on ?onto)) (not (= ?b ?onto)) (not (= ?from ?onto)))
    :effect (and (not (on ?b ?from)) (on ?b ?onto) (clear ?from) (not (clear ?onto))))
  (:action unlean-to-place
    :parameters (?b - block ?from - block ?lean - block ?to - place)
    :precondition (and (on ?b ?from) (leans-on ?b ?lean) (clear ?b) (not (leaned-on ?b)))
    :effect (and (not (on ?b ?from)) (not (leans-on ?b ?lean)) (not (leaning ?b)) (not (leaned-on ?lean))
                 (on ?b ?to) (clear ?from)))
  (:action unlean-onto
    :parameters (?b - block ?from - block ?lean - block ?onto - block)
    :precondition (and (on ?b ?from) (leans-on ?b ?lean) (clear ?b) (not (leaned-on ?b)) (clear ?onto)
                       (not (leaned-on ?onto)) (not (= ?b ?onto)) (not (= ?from ?onto)) (not (= ?lean ?onto)))
    :effect (and (not (on ?b ?from)) (not (leans-on ?b ?lean)) (not (leaning ?b)) (not (leaned-on ?lean))
                 (on ?b ?onto) (clear ?from) (not (clear ?onto)))))
