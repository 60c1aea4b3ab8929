(define (problem miconic-2)
  (:domain miconic-adl)
  (:objects
    f0 f1 f2 f3 - floor
    p0 p1 - passenger)
  (:init
    (lift-at f0)
    (above f0 f1) (above f0 f2) (above f0 f3) (above f1 f2) (above f1 f3) (above f2 f3)
    (origin p0 f3) (destin p0 f0) (origin p1 f1) (destin p1 f2)
    (vip p1))
  (:goal (and (served p0) (served p1))))
