; A few symbolic actions over the igibson predicates, for planning BDDL problems in tests.
(define (domain igibson-actions)
    (:requirements :strips :negative-preconditions)
    (:predicates (inside ?a ?b) (ontop ?a ?b) (nextto ?a ?b) (open ?a) (sliced ?a) (stained ?a)
                 (onfloor ?a ?b) (touching ?a ?b) (inroom ?a ?b))
    (:action put-inside :parameters (?o ?c) :precondition (not (inside ?o ?c)) :effect (inside ?o ?c))
    (:action put-on :parameters (?o ?s) :precondition (not (ontop ?o ?s)) :effect (ontop ?o ?s))
    (:action slice :parameters (?o) :precondition (not (sliced ?o)) :effect (sliced ?o))
)
