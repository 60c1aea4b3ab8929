;; carry the dictionary from home to the office
(define (problem briefcase-1)
  (:domain briefcase)
  (:objects
    home office - location
    dictionary - portable)
  (:init (is-at home) (at dictionary home))
  (:goal (and (at dictionary office))))
