(define (problem light-up) (:domain empty-effect)
  (:init (dark))
  (:goal (lit)))
