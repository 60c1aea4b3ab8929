;; four locations, three objects to redistribute
(define (problem briefcase-3)
  (:domain briefcase)
  (:objects
    home office library bank - location
    dictionary paycheck book - portable)
  (:init (is-at home) (at dictionary home) (at paycheck office) (at book library))
  (:goal (and (at dictionary library) (at paycheck bank) (at book home)
              (not (in dictionary)) (not (in paycheck)) (not (in book))
              (is-at office))))
