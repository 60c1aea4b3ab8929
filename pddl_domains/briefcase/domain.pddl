;; Briefcase world (Pednault's classic ADL example): moving the briefcase moves
;; every object that is inside it (conditional effect with forall/when).
(define (domain briefcase)
  (:requirements :strips :typing :negative-preconditions :equality
                 :conditional-effects)
  (:types portable location)
  (:predicates
    (at ?y - portable ?x - location) ;; portable object y is at location x
    (in ?x - portable)               ;; portable object x is in the briefcase
    (is-at ?x - location))           ;; the briefcase is at location x
  (:action move-briefcase
    :parameters (?m ?l - location)
    :precondition (and (is-at ?m) (not (= ?m ?l)))
    :effect (and (is-at ?l) (not (is-at ?m))
                 (forall (?x - portable)
                   (when (in ?x)
                     (and (at ?x ?l) (not (at ?x ?m)))))))
  (:action put-in
    :parameters (?x - portable ?l - location)
    :precondition (and (not (in ?x)) (at ?x ?l) (is-at ?l))
    :effect (in ?x))
  (:action take-out
    :parameters (?x - portable)
    :precondition (in ?x)
    :effect (not (in ?x)))
)
