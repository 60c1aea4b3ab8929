(define (problem p) (:domain order)
  (:objects a b - block)
  (:init (clear a))
  (:goal (and (on qq t1) (on rr t2) (clear ss) (clear tt) (clear uu) (on vv t1))))
