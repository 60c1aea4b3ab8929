; Drivers board empty trucks, drive them along roads and step out (written for pgt's tests).
(define (domain shuttles)
  (:requirements :strips)
  (:predicates (at ?x ?l) (empty ?v) (driving ?d ?v) (truck ?v) (driver ?d) (road ?a ?b))
  (:action board
    :parameters (?d ?v ?l)
    :precondition (and (driver ?d) (truck ?v) (at ?d ?l) (at ?v ?l) (empty ?v))
    :effect (and (driving ?d ?v) (not (empty ?v)) (not (at ?d ?l))))
  (:action step-out
    :parameters (?d ?v ?l)
    :precondition (and (driving ?d ?v) (at ?v ?l))
    :effect (and (empty ?v) (at ?d ?l) (not (driving ?d ?v))))
  (:action drive
    :parameters (?v ?a ?b ?d)
    :precondition (and (driving ?d ?v) (at ?v ?a) (road ?a ?b))
    :effect (and (at ?v ?b) (not (at ?v ?a)))))
