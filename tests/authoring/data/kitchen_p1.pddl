(define (problem p1) (:domain kitchen)
  (:objects a b - item)
  (:init (fixed a))
  (:goal (and (hot a) (done b))))
