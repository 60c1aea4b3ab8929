;; ViPlan-HH household domain (ViPlan paper, appendix H.2, Figure 9), used with
;; the iGibson simulator. Transcribed with identical semantics; the only change
;; is that :disjunctive-preconditions and :universal-preconditions are declared,
;; because grasp/open-container/navigate-to use forall and or in preconditions.
(define (domain igibson)
    (:requirements :strips :typing :negative-preconditions :conditional-effects
        :equality :disjunctive-preconditions :universal-preconditions)
    (:types
        container movable - object
    )
    (:predicates
        ;; Agent predicates
        (reachable ?o - object) ;; object o is within reach of the agent
        (holding ?m - movable) ;; the agent is holding movable object m
        ;; Object attributes
        (open ?c - container) ;; container c is open
        ;; Object relations
        (ontop ?o1 - object ?o2 - object) ;; object o1 is on top of object o2
        (nextto ?o1 - object ?o2 - object) ;; object o1 is next to object o2
        ;; Only containers can contain objects
        (inside ?o - object ?c - container) ;; object o is inside container c
    )
    (:action grasp
        :parameters (?m - movable)
        :precondition (and
            (reachable ?m)
            ;; Agent must not be holding anything
            (forall (?x - movable)
                (not (holding ?x))
            )
        )
        :effect (and
            (holding ?m)
            (forall (?y - object)
                (and
                    ;; If grasped object is on top of something,
                    ;; it is no longer on top of it
                    (not (ontop ?m ?y))
                    ;; Same for nextto
                    (not (nextto ?m ?y)))
            )
            ;; If m was in a container, it's not anymore
            (forall (?c - container)
                (when (inside ?m ?c) (not (inside ?m ?c)))
            )
        )
    )
    (:action place-on
        :parameters (?m - movable ?o2 - object)
        :precondition (and
            (holding ?m)
            (reachable ?o2)
        )
        :effect (and
            (ontop ?m ?o2)
            (not (holding ?m))
        )
    )
    (:action place-next-to
        :parameters (?m - movable ?o2 - object)
        :precondition (and
            (holding ?m)
            (reachable ?o2)
        )
        :effect (and
            (nextto ?m ?o2)
            (not (holding ?m))
        )
    )
    (:action place-inside
        :parameters (?m - movable ?c - container)
        :precondition (and
            (holding ?m)
            (reachable ?c)
            (open ?c)
        )
        :effect (and
            (inside ?m ?c)
            (not (holding ?m))
        )
    )
    (:action open-container
        :parameters (?c - container)
        :precondition (and
            (reachable ?c)
            (not (open ?c))
            ;; Agent must not be holding anything
            (forall (?x - movable)
                (not (holding ?x))
            )
        )
        :effect (and
            (open ?c)
            ;; All objects inside the container are reachable
            (forall (?o - object)
                (when (inside ?o ?c) (reachable ?o))
            )
        )
    )
    (:action close-container
        :parameters (?c - container)
        :precondition (and
            (reachable ?c)
            (open ?c)
        )
        :effect (and
            (not (open ?c))
            ;; All objects inside the container are unreachable
            (forall (?o - object)
                (when (inside ?o ?c) (not (reachable ?o)))
            )
        )
    )
    (:action navigate-to
        :parameters (?o - object)
        :precondition (and
            (not (reachable ?o))
            ;; Do not navigate-to things hidden in a closed container
            (forall (?c - container)
                (or (not (inside ?o ?c)) (open ?c))
            )
        )
        :effect (and
            (reachable ?o) ;; make target object reachable
            ;; Make every other object unreachable
            (forall (?x - object)
                (when (not (= ?x ?o))
                    (not (reachable ?x))))
            ;; Also, if there exists a container which is ?o and that it's open,
            ;; set the objects inside as reachable
            (forall (?c - container ?x - object)
                (when (and (= ?c ?o) (open ?c) (inside ?x ?c))
                    (reachable ?x)))
        )
    )
)
