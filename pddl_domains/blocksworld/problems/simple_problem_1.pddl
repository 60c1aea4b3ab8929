;; simple split: 3 blocks, 4 columns (stack of two at start, tower of three at the end)
(define (problem simple_problem_1)
  (:domain blocksworld)
  (:objects
    r g b - block
    c1 c2 c3 c4 - column)
  (:init
    (inColumn r c1) (inColumn g c1) (on g r) (clear g) (inColumn b c3) (clear b)
    (rightOf c2 c1) (rightOf c3 c2) (rightOf c4 c3)
    (leftOf c1 c2) (leftOf c2 c3) (leftOf c3 c4))
  (:goal (and (inColumn g c2) (inColumn b c2) (on b g) (inColumn r c2) (on r b) (clear r))))
