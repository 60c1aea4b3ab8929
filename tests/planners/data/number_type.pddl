; A type named "number" (IPC 2004's promela domains count queue slots with one); Fast Downward reserves the name.
(define (domain number-type)
  (:requirements :strips :typing :action-costs)
  (:types number slot - object)
  (:predicates (at ?n - number) (next ?a - number ?b - number) (filled ?s - slot ?n - number))
  (:functions (step-cost ?n - number) - number (total-cost) - number)
  (:action count-up
    :parameters (?a - number ?b - number ?s - slot)
    :precondition (and (at ?a) (next ?a ?b))
    :effect (and (at ?b) (not (at ?a)) (filled ?s ?b) (increase (total-cost) (step-cost ?b)))))
