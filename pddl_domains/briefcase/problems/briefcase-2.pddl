;; paycheck goes home, dictionary goes to the office, briefcase ends at home
(define (problem briefcase-2)
  (:domain briefcase)
  (:objects
    home office - location
    dictionary paycheck - portable)
  (:init (is-at home) (at dictionary home) (at paycheck office))
  (:goal (and (at dictionary office) (at paycheck home) (not (in paycheck))
              (is-at home))))
