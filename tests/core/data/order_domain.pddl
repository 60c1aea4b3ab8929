; A clean domain for the problems with several errors each.
(define (domain order)
  (:requirements :typing)
  (:types block table)
  (:constants t1 t2 - table)
  (:predicates (on ?b - block ?t - table) (clear ?b - block) (free ?t - table))
  (:action put :parameters (?b - block ?t - table) :precondition (clear ?b) :effect (on ?b ?t)))
