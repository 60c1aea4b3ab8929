(define (problem carry-1) (:domain carry)
  (:objects robot1 robot2 - robot hall kitchen - room ball1 - ball lgrip rgrip - gripper)
  (:init (at-robby robot1 hall) (at-robby robot2 hall) (at ball1 hall) (free robot1 lgrip) (free robot1 rgrip))
  (:goal (and (at ball1 kitchen))))
