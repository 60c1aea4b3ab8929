;; Purpose-built broken domain: every domain-level lint finding appears once.
(define (domain kitchen)
  (:requirements :strips :typing :equality)
  (:types item gadget)
  (:constants spare - item)
  (:predicates
    (hot ?x - item)
    (fixed ?x - item)
    (magic ?x - item)
    (done ?x - item)
    (broken ?x - item))
  (:action heat
    :parameters (?x - item)
    :precondition (and (fixed ?x) (not (hot ?x)))
    :effect (and (hot ?x) (not (hot ?x))))
  (:action finish
    :parameters (?x - item)
    :precondition (magic ?x)
    :effect (done ?x)))
