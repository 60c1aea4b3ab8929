(define (problem p1) (:domain lights)
  (:objects kitchen - room s1 - switch)
  (:init (in kitchen s1))
  (:goal (lit kitchen)))
