; The goal holds at the start: any plan that moves a robot away breaks it.
(define (problem carry-2) (:domain carry)
  (:objects robot1 - robot hall kitchen - room ball1 - ball lgrip - gripper)
  (:init (at-robby robot1 hall) (at ball1 kitchen) (free robot1 lgrip))
  (:goal (and (at ball1 kitchen) (at-robby robot1 hall))))
