; An action and a predicate share the name "open" (legal PDDL: separate namespaces).
(define (domain clash-action-predicate)
  (:requirements :strips :typing)
  (:types agent box)
  (:predicates (open ?b - box) (closed ?b - box) (near ?a - agent ?b - box))
  (:action walk
    :parameters (?a - agent ?b - box)
    :precondition (and)
    :effect (near ?a ?b))
  (:action open
    :parameters (?a - agent ?b - box)
    :precondition (and (near ?a ?b) (closed ?b))
    :effect (and (open ?b) (not (closed ?b)))))
