(define (problem p1) (:domain depot)
  (:objects c1 c2 c1 - crate a b - place z - zone)
  (:init (at c1 a) (free a b) (free c1) (at c2 nowhere) (free z))
  (:goal (and (at c1 b) (lost c2))))
