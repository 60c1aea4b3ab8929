; Objects of several undeclared types.
(define (problem p) (:domain order)
  (:objects a - blok b - tabel c - cupp d - plate)
  (:init)
  (:goal (and)))
