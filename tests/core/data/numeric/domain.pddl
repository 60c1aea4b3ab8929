; A hand-written numeric domain for pgt's tests (PDDL 2.1 level 2): trucks with fuel.
(define (domain trucks-fuel)
 (:requirements :typing :fluents :conditional-effects)
 (:types truck place)
 (:predicates (at ?t - truck ?p - place) (road ?a ?b - place) (depot ?p - place))
 (:functions (fuel ?t - truck) (capacity ?t - truck) (cost ?a ?b - place) (total-fuel-used) (trips))
 (:action drive
  :parameters (?t - truck ?a ?b - place)
  :precondition (and (at ?t ?a) (road ?a ?b) (>= (fuel ?t) (cost ?a ?b)))
  :effect (and (not (at ?t ?a)) (at ?t ?b) (decrease (fuel ?t) (cost ?a ?b))
               (increase (total-fuel-used) (cost ?a ?b)) (increase (trips) 1)))
 (:action refuel
  :parameters (?t - truck ?p - place)
  :precondition (and (at ?t ?p) (depot ?p) (< (fuel ?t) (capacity ?t)))
  :effect (and (assign (fuel ?t) (capacity ?t))))
 (:action halve-all
  :parameters (?p - place)
  :precondition (and (depot ?p))
  :effect (and (forall (?t - truck) (when (at ?t ?p) (scale-down (fuel ?t) 2)))))
)
