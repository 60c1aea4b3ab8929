(define (problem p) (:domain order)
  (:objects a b - block)
  (:init (clear zz) (clear yy) (clear xx) (clear ww) (clear vv) (clear uu))
  (:goal (and (on qq t1) (on rr t2) (clear ss))))
