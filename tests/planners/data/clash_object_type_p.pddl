(define (problem walk-over) (:domain clash-object-type)
  (:objects character - character room kitchen - room)
  (:init (in character room) (adjacent room kitchen))
  (:goal (in character kitchen)))
