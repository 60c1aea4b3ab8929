;; Miconic elevator (IPC-2000, ADL flavour, simplified): an elevator moves
;; between floors; stopping boards waiting passengers and lets out passengers
;; that reached their destination. ADL preconditions (exists/forall/imply/or,
;; equality) restrict when the elevator may stop.
(define (domain miconic-adl)
  (:requirements :strips :typing :negative-preconditions :equality
                 :disjunctive-preconditions :existential-preconditions
                 :universal-preconditions :conditional-effects)
  (:types passenger floor)
  (:predicates
    (origin ?p - passenger ?f - floor)   ;; passenger p waits at floor f
    (destin ?p - passenger ?f - floor)   ;; passenger p wants to go to floor f
    (above ?f1 - floor ?f2 - floor)      ;; floor f2 is above floor f1
    (boarded ?p - passenger)             ;; passenger p is in the elevator
    (served ?p - passenger)              ;; passenger p has arrived
    (lift-at ?f - floor)                 ;; the elevator is at floor f
    (vip ?p - passenger)                 ;; passenger p must be served first
    (no-access ?p - passenger ?f - floor)) ;; passenger p may not be carried past a stop at f
  (:action up
    :parameters (?f1 - floor ?f2 - floor)
    :precondition (and (lift-at ?f1) (above ?f1 ?f2) (not (= ?f1 ?f2)))
    :effect (and (lift-at ?f2) (not (lift-at ?f1))))
  (:action down
    :parameters (?f1 - floor ?f2 - floor)
    :precondition (and (lift-at ?f1) (above ?f2 ?f1) (not (= ?f1 ?f2)))
    :effect (and (lift-at ?f2) (not (lift-at ?f1))))
  (:action stop
    :parameters (?f - floor)
    :precondition (and
      (lift-at ?f)
      ;; somebody has to board or leave here
      (exists (?p - passenger)
        (or (and (origin ?p ?f) (not (boarded ?p)) (not (served ?p)))
            (and (boarded ?p) (destin ?p ?f))))
      ;; while a VIP is unserved, only stop where that VIP boards or leaves
      (forall (?p - passenger)
        (imply (and (vip ?p) (not (served ?p)))
               (or (origin ?p ?f) (destin ?p ?f))))
      ;; a passenger without access to f must not be on board when stopping at f
      (forall (?p - passenger)
        (imply (no-access ?p ?f) (not (boarded ?p)))))
    :effect (forall (?p - passenger)
      (and
        (when (and (boarded ?p) (destin ?p ?f))
              (and (not (boarded ?p)) (served ?p)))
        (when (and (origin ?p ?f) (not (boarded ?p)) (not (served ?p)))
              (boarded ?p)))))
)
