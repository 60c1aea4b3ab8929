; Every kind of recoverable load error, one each, in one file.
(define (domain depot)
  (:requirements :strips :typing :teleport)
  (:types crate place)
  (:predicates
    (at ?c - crate ?p - place)
    (free ?p - place)
    (at ?c - crate ?p - place)
    (heavy ?c - crat))
  (:action push
    :parameters (?c - crate ?from ?to - place)
    :precondition (and (at ?c ?from) (free ?to ?from))
    :effect (and (at ?c ?to) (not (at ?c ?from)) (shiny ?c)))
  (:action push
    :parameters (?c - crate ?p - place)
    :precondition (at ?c ?p)
    :effect (not (free ?q))))
