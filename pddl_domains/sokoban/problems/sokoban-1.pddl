;; corridor: push one stone two cells right
;;   ######
;;   #@$ .#
;;   ######
(define (problem sokoban-1)
  (:domain sokoban)
  (:objects
    pos-1-1 pos-1-2 pos-1-3 pos-1-4 - location
    stone1 - stone)
  (:init
    (at-robot pos-1-1)
    (at stone1 pos-1-2) (occupied pos-1-2)
    (is-goal pos-1-4)
    (move-dir pos-1-1 pos-1-2 right)
    (move-dir pos-1-2 pos-1-1 left)
    (move-dir pos-1-2 pos-1-3 right)
    (move-dir pos-1-3 pos-1-2 left)
    (move-dir pos-1-3 pos-1-4 right)
    (move-dir pos-1-4 pos-1-3 left))
  (:goal (and (occupied pos-1-4))))
