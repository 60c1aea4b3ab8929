; An action whose effect is empty: "(:effect ())", written by some generators for waits.
(define (domain empty-effect)
  (:requirements :strips)
  (:predicates (lit) (dark))
  (:action wait
    :parameters ()
    :precondition ()
    :effect ())
  (:action switch-on
    :parameters ()
    :precondition (dark)
    :effect (and (lit) (not (dark)))))
