;; Gripper (IPC-1998), typed STRIPS version: a robot with two grippers carries
;; balls between rooms.
(define (domain gripper)
  (:requirements :strips :typing)
  (:types room ball gripper)
  (:predicates
    (at-robby ?r - room)            ;; the robot is in room r
    (at ?b - ball ?r - room)        ;; ball b is in room r
    (free ?g - gripper)             ;; gripper g holds nothing
    (carry ?b - ball ?g - gripper)) ;; gripper g holds ball b
  (:action move
    :parameters (?from ?to - room)
    :precondition (at-robby ?from)
    :effect (and (at-robby ?to) (not (at-robby ?from))))
  (:action pick
    :parameters (?b - ball ?r - room ?g - gripper)
    :precondition (and (at ?b ?r) (at-robby ?r) (free ?g))
    :effect (and (carry ?b ?g) (not (at ?b ?r)) (not (free ?g))))
  (:action drop
    :parameters (?b - ball ?r - room ?g - gripper)
    :precondition (and (carry ?b ?g) (at-robby ?r))
    :effect (and (at ?b ?r) (free ?g) (not (carry ?b ?g))))
)
