;; A tower b-a-d-c (top first) to reverse into c-d-a-b.
(define (problem bw4-4) (:domain blocksworld-4ops)
  (:objects a b c d)
  (:init (handempty) (clear b) (on b a) (on a d) (on d c) (ontable c))
  (:goal (and (on c d) (on d a) (on a b))))
