;; ViPlan-BW Figure 8 (simple split): 3 blocks, 4 columns, every block on the
;; table; object names lowercased (Y P R -> y p r, C1..C4 -> c1..c4).
(define (problem simple_problem_0)
  (:domain blocksworld)
  (:objects
    y p r - block
    c1 c2 c3 c4 - column
  )
  (:init
    (clear y)
    (clear p)
    (clear r)
    (inColumn y c2)
    (inColumn p c1)
    (inColumn r c4)
    (rightOf c2 c1)
    (rightOf c3 c2)
    (rightOf c4 c3)
    (leftOf c1 c2)
    (leftOf c2 c3)
    (leftOf c3 c4)
  )
  (:goal
    (and
      (clear y)
      (clear p)
      (clear r)
      (inColumn y c3)
      (inColumn p c4)
      (inColumn r c1)
    )
  )
)
