(define (problem miconic-1)
  (:domain miconic-adl)
  (:objects
    f0 f1 f2 - floor
    p0 - passenger)
  (:init
    (lift-at f0)
    (above f0 f1) (above f0 f2) (above f1 f2)
    (origin p0 f1) (destin p0 f2)
    )
  (:goal (and (served p0))))
