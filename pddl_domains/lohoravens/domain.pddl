; LoHoRavens' tabletop, symbolically: blocks rest on places (bowls, target poses, zones, the table) or on
; other blocks; one pick-and-place moves a clear block (the suction primitive of cliport/tasks/primitives.py).
; Written by pgt from LoHo-Ravens' task code; scene_graphs/lohoravens.py is its world.
(define (domain lohoravens)
  (:requirements :strips :typing :negative-preconditions :equality)
  (:types block place - support)
  (:predicates (on ?b - block ?s - support) (clear ?b - block))
  (:action put-on-place
    :parameters (?b - block ?from - place ?to - place)
    :precondition (and (on ?b ?from) (clear ?b) (not (= ?from ?to)))
    :effect (and (not (on ?b ?from)) (on ?b ?to)))
  (:action unstack-to-place
    :parameters (?b - block ?from - block ?to - place)
    :precondition (and (on ?b ?from) (clear ?b))
    :effect (and (not (on ?b ?from)) (on ?b ?to) (clear ?from)))
  (:action stack
    :parameters (?b - block ?from - place ?onto - block)
    :precondition (and (on ?b ?from) (clear ?b) (clear ?onto) (not (= ?b ?onto)))
    :effect (and (not (on ?b ?from)) (on ?b ?onto) (not (clear ?onto))))
  (:action restack
    :parameters (?b - block ?from - block ?onto - block)
    :precondition (and (on ?b ?from) (clear ?b) (clear ?onto) (not (= ?b ?onto)) (not (= ?from ?onto)))
    :effect (and (not (on ?b ?from)) (on ?b ?onto) (clear ?from) (not (clear ?onto)))))
