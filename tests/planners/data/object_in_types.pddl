; "object" listed in :types (FD and unified-planning accept it), plus every clash above at once.
(define (domain object-in-types)
  (:requirements :typing)
  (:types object character)
  (:predicates (open ?o - object) (closed ?o - object) (near ?c - character ?o - object))
  (:action walk
    :parameters (?c - character ?o - object)
    :precondition ()
    :effect (near ?c ?o))
  (:action open
    :parameters (?c - character ?o - object)
    :precondition (and (near ?c ?o) (closed ?o))
    :effect (and (open ?o) (not (closed ?o))))
  (:action wait
    :parameters (?c - character)
    :precondition ()
    :effect ()))
