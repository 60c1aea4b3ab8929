; A two-robot delivery domain shaped like LLM+P's grippers (written for these tests).
(define (domain carry)
  (:requirements :strips :typing)
  (:types robot room ball gripper)
  (:predicates (at-robby ?r - robot ?x - room) (at ?b - ball ?x - room)
               (free ?r - robot ?g - gripper) (carry ?r - robot ?b - ball ?g - gripper))
  (:action move
    :parameters (?r - robot ?from ?to - room)
    :precondition (at-robby ?r ?from)
    :effect (and (at-robby ?r ?to) (not (at-robby ?r ?from))))
  (:action pick
    :parameters (?r - robot ?b - ball ?x - room ?g - gripper)
    :precondition (and (at ?b ?x) (at-robby ?r ?x) (free ?r ?g))
    :effect (and (carry ?r ?b ?g) (not (at ?b ?x)) (not (free ?r ?g))))
  (:action drop
    :parameters (?r - robot ?b - ball ?x - room ?g - gripper)
    :precondition (and (carry ?r ?b ?g) (at-robby ?r ?x))
    :effect (and (at ?b ?x) (free ?r ?g) (not (carry ?r ?b ?g)))))
