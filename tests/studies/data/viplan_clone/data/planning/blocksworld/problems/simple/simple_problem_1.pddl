;; A two-block problem written as ViPlan writes its files (upper-case names), for the import tests.
(define (problem simple_problem_1)
  (:domain blocksworld)
  (:objects
    R G - block
    C1 C2 - column
  )
  (:init
    (clear R) (on R G) (inColumn R C1) (inColumn G C1)
    (rightOf C2 C1)
    (leftOf C1 C2)
  )
  (:goal (and (on R G)))
)
