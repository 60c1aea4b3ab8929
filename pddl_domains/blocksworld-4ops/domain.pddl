;; Classic four-operator Blocksworld (IPC-2000 track, PlanBench): a one-handed
;; robot picks blocks up from the table, puts them down, and stacks/unstacks them.
(define (domain blocksworld-4ops)
  (:requirements :strips)
  (:predicates
    (on ?x ?y)     ;; block x is on block y
    (ontable ?x)   ;; block x is on the table
    (clear ?x)     ;; block x is clear
    (handempty)    ;; the hand is empty
    (holding ?x))  ;; the hand is holding block x
  ;; take a clear block from the table
  (:action pick-up
    :parameters (?x)
    :precondition (and (clear ?x) (ontable ?x) (handempty))
    :effect (and (not (ontable ?x)) (not (clear ?x)) (not (handempty)) (holding ?x)))
  ;; put the held block on the table
  (:action put-down
    :parameters (?x)
    :precondition (holding ?x)
    :effect (and (not (holding ?x)) (clear ?x) (handempty) (ontable ?x)))
  ;; put the held block x on the clear block y
  (:action stack
    :parameters (?x ?y)
    :precondition (and (holding ?x) (clear ?y))
    :effect (and (not (holding ?x)) (not (clear ?y)) (clear ?x) (handempty) (on ?x ?y)))
  ;; take the clear block x off block y
  (:action unstack
    :parameters (?x ?y)
    :precondition (and (on ?x ?y) (clear ?x) (handempty))
    :effect (and (holding ?x) (clear ?y) (not (clear ?x)) (not (handempty)) (not (on ?x ?y))))
)
