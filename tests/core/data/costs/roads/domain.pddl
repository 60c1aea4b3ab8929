(define (domain roads)
  (:requirements :typing :action-costs)
  (:types place)
  (:predicates (at ?p - place) (road ?a ?b - place) (visited ?p - place))
  (:functions (road-length ?a ?b - place) - number (total-cost) - number)
  (:action drive
    :parameters (?a ?b - place)
    :precondition (and (at ?a) (road ?a ?b))
    :effect (and (not (at ?a)) (at ?b) (visited ?b) (increase (total-cost) (road-length ?a ?b))))
  (:action teleport
    :parameters (?a ?b - place)
    :precondition (at ?a)
    :effect (and (not (at ?a)) (at ?b) (visited ?b) (increase (total-cost) 50))))
