; Four planted faults: an undeclared predicate (broken), a wrong arity (lit), an unused
; predicate (dusty) and an action that can never apply (repair).
(define (domain lights)
  (:requirements :strips :typing :negative-preconditions)
  (:types room switch)
  (:predicates
    (on ?s - switch)
    (in ?r - room ?s - switch)
    (lit ?r - room)
    (dusty ?r - room))
  (:action flip
    :parameters (?s - switch ?r - room)
    :precondition (and (in ?r ?s) (not (on ?s)))
    :effect (and (on ?s) (lit ?r ?s)))
  (:action dim
    :parameters (?s - switch ?r - room)
    :precondition (and (on ?s) (broken ?s))
    :effect (and (not (on ?s)) (not (lit ?r))))
  (:action repair
    :parameters (?s - switch)
    :precondition (and (on ?s) (not (on ?s)))
    :effect (on ?s)))
