; The goal needs an atom of the wrong type that nothing can make true.
(define (problem never) (:domain order)
  (:objects a b - block x - table)
  (:init (clear a))
  (:goal (and (on a t1) (free a))))
