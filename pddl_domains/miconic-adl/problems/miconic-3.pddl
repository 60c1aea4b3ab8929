(define (problem miconic-3)
  (:domain miconic-adl)
  (:objects
    f0 f1 f2 f3 f4 - floor
    p0 p1 p2 p3 - passenger)
  (:init
    (lift-at f1)
    (above f0 f1) (above f0 f2) (above f0 f3) (above f0 f4) (above f1 f2) (above f1 f3) (above f1 f4) (above f2 f3) (above f2 f4) (above f3 f4)
    (origin p0 f0) (destin p0 f4) (origin p1 f2) (destin p1 f1) (origin p2 f3) (destin p2 f0) (origin p3 f4) (destin p3 f2)
    (vip p2) (no-access p0 f2))
  (:goal (and (served p0) (served p1) (served p2) (served p3))))
