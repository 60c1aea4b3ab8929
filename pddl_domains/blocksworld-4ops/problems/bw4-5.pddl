;; Two towers (e on a; c on b on d) into one: a on b on c on d on e.
(define (problem bw4-5) (:domain blocksworld-4ops)
  (:objects a b c d e)
  (:init (handempty) (clear e) (on e a) (ontable a) (clear c) (on c b) (on b d) (ontable d))
  (:goal (and (on a b) (on b c) (on c d) (on d e))))
