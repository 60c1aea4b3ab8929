;; medium split: 5 blocks, 5 columns
(define (problem medium_problem_0)
  (:domain blocksworld)
  (:objects
    r g b y p - block
    c1 c2 c3 c4 c5 - column)
  (:init
    (inColumn r c1) (inColumn g c1) (on g r) (clear g) (inColumn b c2) (inColumn y c2) (on y b) (clear y) (inColumn p c4) (clear p)
    (rightOf c2 c1) (rightOf c3 c2) (rightOf c4 c3) (rightOf c5 c4)
    (leftOf c1 c2) (leftOf c2 c3) (leftOf c3 c4) (leftOf c4 c5))
  (:goal (and (inColumn y c1) (inColumn p c1) (on p y) (inColumn g c1) (on g p) (clear g) (inColumn b c5) (inColumn r c5) (on r b) (clear r))))
