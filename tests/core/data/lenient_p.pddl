; Sloppy types, as some benchmark files have: a table used where a block is declared, and back.
(define (problem sloppy) (:domain order)
  (:objects a b - block x - table)
  (:init (clear a) (clear x) (free a))
  (:goal (and (on a t1) (clear x))))
