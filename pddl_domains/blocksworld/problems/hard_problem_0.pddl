;; hard split: 6 blocks, 4 columns
(define (problem hard_problem_0)
  (:domain blocksworld)
  (:objects
    r g b y p o - block
    c1 c2 c3 c4 - column)
  (:init
    (inColumn r c1) (inColumn g c1) (on g r) (inColumn b c1) (on b g) (clear b) (inColumn y c2) (inColumn p c2) (on p y) (inColumn o c2) (on o p) (clear o)
    (rightOf c2 c1) (rightOf c3 c2) (rightOf c4 c3)
    (leftOf c1 c2) (leftOf c2 c3) (leftOf c3 c4))
  (:goal (and (inColumn p c1) (inColumn y c1) (on y p) (inColumn b c1) (on b y) (clear b) (inColumn o c2) (inColumn g c2) (on g o) (inColumn r c2) (on r g) (clear r))))
