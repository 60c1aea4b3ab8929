(define (problem stow-away) (:domain repeated-param)
  (:objects parcel crate - package depot shop - place)
  (:init (at parcel depot) (at crate shop) (path depot shop))
  (:goal (in parcel crate)))
