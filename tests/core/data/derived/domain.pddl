;; Derived predicates in two strata: (reach ?n) is the transitive closure of (link ?a ?b) from
;; a (source ?n) (positive recursion); (cut-off ?n) holds where no path reaches ?n (negation of
;; the stratum below). Actions change only basic atoms; preconditions and goals read derived ones.
(define (domain relay)
  (:requirements :typing :negative-preconditions :existential-preconditions :derived-predicates)
  (:types node)
  (:predicates (link ?a ?b - node) (source ?n - node) (powered ?n - node)
               (reach ?n - node) (cut-off ?n - node))
  (:derived (reach ?n - node) (source ?n))
  (:derived (reach ?n - node) (exists (?m - node) (and (reach ?m) (link ?m ?n))))
  (:derived (cut-off ?n - node) (not (reach ?n)))
  (:action connect
    :parameters (?a ?b - node)
    :precondition (and (reach ?a) (not (link ?a ?b)))
    :effect (link ?a ?b))
  (:action disconnect
    :parameters (?a ?b - node)
    :precondition (link ?a ?b)
    :effect (not (link ?a ?b)))
  (:action power
    :parameters (?n - node)
    :precondition (and (reach ?n) (not (powered ?n)))
    :effect (powered ?n))
  (:action unpower
    :parameters (?n - node)
    :precondition (and (cut-off ?n) (powered ?n))
    :effect (not (powered ?n))))
