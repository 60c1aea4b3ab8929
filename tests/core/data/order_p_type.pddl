(define (problem p) (:domain order)
  (:objects a b c d e - block x y - table)
  (:init (clear x) (clear y) (on a b) (on c d) (free a) (free e) (clear a) (on x y))
  (:goal (and (on a t1) (on b t2))))
