;; c is on a; goal: a on b on c (the Sussman anomaly).
(define (problem bw4-3) (:domain blocksworld-4ops)
  (:objects a b c)
  (:init (handempty) (on c a) (ontable a) (ontable b) (clear b) (clear c))
  (:goal (and (on a b) (on b c))))
