; A predicate declared with one parameter name twice, "(in ?obj ?obj)" as in IPC logistics: legal
; PDDL (only arity and types matter), but a name-keyed translation would drop an argument.
(define (domain repeated-param)
  (:requirements :strips :typing)
  (:types package place)
  (:predicates (in ?obj ?obj - object) (at ?x ?x) (path ?p ?p - place))
  (:action drive
    :parameters (?pkg - package ?from ?to - place)
    :precondition (and (at ?pkg ?from) (path ?from ?to))
    :effect (and (at ?pkg ?to) (not (at ?pkg ?from))))
  (:action stow
    :parameters (?pkg - package ?box - package ?p - place)
    :precondition (and (at ?pkg ?p) (at ?box ?p) (not (= ?pkg ?box)))
    :effect (and (in ?pkg ?box) (not (at ?pkg ?p)))))
