; BabyAI (Farama minigrid) as PDDL: one action per minigrid action that changes something, with
; minigrid's own rules (minigrid/minigrid_env.py, MiniGridEnv.step; world_object.py, Door/Box.toggle).
; Cells are the grid's non-wall cells c-X-Y; (next ?a ?b ?d) says ?b is the cell in front of ?a facing ?d.
; (empty ?c): nothing in the cell; (clear ?c): the agent may enter it (empty, or an open door).
(define (domain babyai)
  (:requirements :strips :typing :negative-preconditions :disjunctive-preconditions :existential-preconditions)
  (:types cell dir thing door)
  (:constants east south west north - dir)
  (:predicates
    (agent-at ?c - cell) (facing ?d - dir) (turns-left ?from - dir ?to - dir)
    (next ?a - cell ?b - cell ?d - dir)
    (thing-at ?o - thing ?c - cell) (carrying ?o - thing) (hand-empty) (is-box ?o - thing)
    (hollow ?o - thing) (in-box ?k - thing ?o - thing)
    (door-at ?r - door ?c - cell) (open ?r - door) (locked ?r - door) (fits ?k - thing ?r - door)
    (empty ?c - cell) (clear ?c - cell))
  (:action left
    :parameters (?from - dir ?to - dir)
    :precondition (and (facing ?from) (turns-left ?from ?to))
    :effect (and (not (facing ?from)) (facing ?to)))
  (:action right
    :parameters (?from - dir ?to - dir)
    :precondition (and (facing ?from) (turns-left ?to ?from))
    :effect (and (not (facing ?from)) (facing ?to)))
  (:action forward
    :parameters (?a - cell ?b - cell ?d - dir)
    :precondition (and (agent-at ?a) (facing ?d) (next ?a ?b ?d) (clear ?b))
    :effect (and (not (agent-at ?a)) (agent-at ?b)))
  (:action pickup
    :parameters (?o - thing ?a - cell ?b - cell ?d - dir)
    :precondition (and (agent-at ?a) (facing ?d) (next ?a ?b ?d) (thing-at ?o ?b) (hand-empty))
    :effect (and (not (thing-at ?o ?b)) (carrying ?o) (not (hand-empty)) (empty ?b) (clear ?b)))
  (:action drop
    :parameters (?o - thing ?a - cell ?b - cell ?d - dir)
    :precondition (and (agent-at ?a) (facing ?d) (next ?a ?b ?d) (carrying ?o) (empty ?b))
    :effect (and (thing-at ?o ?b) (not (carrying ?o)) (hand-empty) (not (empty ?b)) (not (clear ?b))))
  (:action open-door
    :parameters (?r - door ?a - cell ?b - cell ?d - dir)
    :precondition (and (agent-at ?a) (facing ?d) (next ?a ?b ?d) (door-at ?r ?b) (not (locked ?r)) (not (open ?r)))
    :effect (and (open ?r) (clear ?b)))
  (:action close-door
    :parameters (?r - door ?a - cell ?b - cell ?d - dir)
    :precondition (and (agent-at ?a) (facing ?d) (next ?a ?b ?d) (door-at ?r ?b) (open ?r))
    :effect (and (not (open ?r)) (not (clear ?b))))
  (:action unlock-door
    :parameters (?r - door ?k - thing ?a - cell ?b - cell ?d - dir)
    :precondition (and (agent-at ?a) (facing ?d) (next ?a ?b ?d) (door-at ?r ?b) (locked ?r) (carrying ?k) (fits ?k ?r))
    :effect (and (not (locked ?r)) (open ?r) (clear ?b)))
  ; toggling a box replaces it with what it holds (minigrid Box.toggle): nothing, or one thing
  (:action open-box
    :parameters (?o - thing ?a - cell ?b - cell ?d - dir)
    :precondition (and (agent-at ?a) (facing ?d) (next ?a ?b ?d) (thing-at ?o ?b) (is-box ?o) (hollow ?o))
    :effect (and (not (thing-at ?o ?b)) (empty ?b) (clear ?b)))
  (:action open-box-with
    :parameters (?o - thing ?k - thing ?a - cell ?b - cell ?d - dir)
    :precondition (and (agent-at ?a) (facing ?d) (next ?a ?b ?d) (thing-at ?o ?b) (in-box ?k ?o))
    :effect (and (not (thing-at ?o ?b)) (not (in-box ?k ?o)) (thing-at ?k ?b))))
