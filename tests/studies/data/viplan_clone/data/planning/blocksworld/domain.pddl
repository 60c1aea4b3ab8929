;; ViPlan-BW column Blocksworld (ViPlan paper, appendix H.1, Figure 7).
;; Blocks are moved one at a time to the top of a labelled column.
(define (domain blocksworld)
  (:requirements :strips :typing :negative-preconditions :conditional-effects :equality)
  (:types block column)
  (:predicates
    (on ?b1 - block ?b2 - block) ;; block b1 is on block b2
    (inColumn ?b - block ?c - column) ;; block b is in column c
    (clear ?b - block) ;; block b is clear (i.e., nothing is on top of it)
    (rightOf ?c1 - column ?c2 - column) ;; column c1 is to the right of column c2
    (leftOf ?c1 - column ?c2 - column) ;; column c1 is to the left of column c2
  )
  ;; move block b1 to the top of column c1
  (:action moveBlock
    :parameters (?b1 - block ?c1 - column)
    :precondition (and (clear ?b1) (not (inColumn ?b1 ?c1)))
    :effect (and
      (forall (?b2 - block)
        (and
          ;; if b1 was on b2, b2 becomes clear
          (when (on ?b1 ?b2)
                (and (not (on ?b1 ?b2)) (clear ?b2)))
          ;; if b2 is the top block of the target column, b1 lands on it
          (when (and (inColumn ?b2 ?c1) (clear ?b2) (not (= ?b2 ?b1)))
                (and (on ?b1 ?b2) (not (clear ?b2))))))
      (forall (?c2 - column)
        (when (inColumn ?b1 ?c2) (not (inColumn ?b1 ?c2))))
      (inColumn ?b1 ?c1)
      (clear ?b1)))
)
