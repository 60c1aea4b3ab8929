(define (problem open-the-box) (:domain clash-action-predicate)
  (:objects robot - agent crate - box)
  (:init (closed crate))
  (:goal (open crate)))
