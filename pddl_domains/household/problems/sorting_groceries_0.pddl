;; Sorting groceries (hard): milk into the fridge and cereal into the cabinet,
;; both closed at the start; the fridge must be closed again at the end.
(define (problem sorting_groceries_0)
    (:domain igibson)
    (:objects
        milk_1 cereal_1 - movable
        fridge_1 cabinet_1 - container
        countertop_1 - object
    )
    (:init
        (ontop milk_1 countertop_1)
        (ontop cereal_1 countertop_1)
        (not (open fridge_1))
        (not (open cabinet_1))
    )
    (:goal
        (and
            (inside milk_1 fridge_1)
            (inside cereal_1 cabinet_1)
            (not (open fridge_1))
        )
    )
)
