; Several undeclared types: the first in the file must be the one reported, every run.
(define (domain order-bad-types)
  (:requirements :typing)
  (:types block - thing table - furniture cup - vessel)
  (:predicates (on ?b - blok ?t - tabel) (in ?c - cupp ?d - dish) (at ?x - place))
  (:action put :parameters (?b - block ?t - table) :precondition (and) :effect (on ?b ?t)))
