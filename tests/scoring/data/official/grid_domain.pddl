; A 3x2 grid in BabyAI's shape: the agent moves between cells named by their (x, y) and picks up a key.
; Moving right turns the agent east (BabyAI's direction 0), moving up turns it north (3).
(define (domain grid)
  (:requirements :strips :typing)
  (:types cell heading)
  (:constants east north - heading)
  (:predicates (at-agent ?c - cell) (right ?a - cell ?b - cell) (up ?a - cell ?b - cell) (has-key) (key-at ?c - cell) (facing ?h - heading))
  (:action move-right :parameters (?a - cell ?b - cell) :precondition (and (at-agent ?a) (right ?a ?b))
    :effect (and (at-agent ?b) (not (at-agent ?a)) (facing east) (not (facing north))))
  (:action move-up :parameters (?a - cell ?b - cell) :precondition (and (at-agent ?a) (up ?a ?b))
    :effect (and (at-agent ?b) (not (at-agent ?a)) (facing north) (not (facing east))))
  (:action pickup :parameters (?c - cell) :precondition (and (at-agent ?c) (key-at ?c))
    :effect (and (has-key) (not (key-at ?c)))))
