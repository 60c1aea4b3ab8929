;; Packing food for work (medium): put a sandwich from the closed fridge and an
;; apple from the countertop into the open carton.
(define (problem packing_food_for_work_0)
    (:domain igibson)
    (:objects
        sandwich_1 apple_1 - movable
        fridge_1 carton_1 - container
        countertop_1 - object
    )
    (:init
        (inside sandwich_1 fridge_1)
        (not (open fridge_1))
        (ontop apple_1 countertop_1)
        (ontop carton_1 countertop_1)
        (open carton_1)
    )
    (:goal
        (and
            (inside sandwich_1 carton_1)
            (inside apple_1 carton_1)
        )
    )
)
