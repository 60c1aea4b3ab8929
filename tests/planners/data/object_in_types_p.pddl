(define (problem open-fridge) (:domain object-in-types)
  (:objects character - character fridge - object)
  (:init (closed fridge))
  (:goal (and (open fridge))))
