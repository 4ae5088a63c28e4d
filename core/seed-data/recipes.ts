import type { Rng } from '../util/rng.js';

/**
 * Recipe vocabulary modelled on AndroidWorld's Broccoli generator (its titles and directions), with
 * real ingredient lists: one ingredient a line, "quantity unit name", never a comma or " and " inside
 * a line so an answer listing them splits cleanly.
 */
export interface RecipeBase {
  title: string;
  ingredients: readonly string[];
  directions: string;
}

export const RECIPE_BASES: readonly RecipeBase[] = [
  { title: 'Spicy Tuna Wraps', ingredients: ['1 can tuna', '2 tbsp mayonnaise', '1 tsp sriracha', '2 tortillas', '1 cucumber'], directions: 'Mix canned tuna with mayo and sriracha. Spread on tortillas, add lettuce and cucumber slices, roll up.' },
  { title: 'Avocado Toast with Egg', ingredients: ['2 slices bread', '1 avocado', '1 egg', '1 pinch chili flakes'], directions: 'Toast bread, top with mashed avocado, a fried egg, salt, pepper, and chili flakes.' },
  { title: 'Greek Salad Pita Pockets', ingredients: ['2 pita breads', '1 tomato', '50 g feta cheese', '10 olives', '2 tbsp Greek dressing'], directions: 'Fill pita pockets with lettuce, cucumber, tomato, feta, olives, and Greek dressing.' },
  { title: 'Quick Fried Rice', ingredients: ['300 g cooked rice', '150 g mixed vegetables', '2 tbsp soy sauce', '2 eggs'], directions: 'Sauté cooked rice with vegetables, add soy sauce and scrambled eggs. Toss until hot.' },
  { title: 'Pesto Pasta with Peas', ingredients: ['250 g pasta', '3 tbsp pesto sauce', '100 g peas', '30 g Parmesan cheese'], directions: 'Cook pasta, stir in pesto sauce and cooked peas. Add Parmesan cheese before serving.' },
  { title: 'BBQ Chicken Quesadillas', ingredients: ['200 g cooked chicken', '3 tbsp BBQ sauce', '4 tortillas', '100 g cheese'], directions: 'Mix shredded cooked chicken with BBQ sauce. Place on tortillas with cheese, fold and cook until crispy.' },
  { title: 'Tomato Basil Bruschetta', ingredients: ['1 baguette', '4 tomatoes', '1 bunch basil', '2 cloves garlic', '3 tbsp olive oil'], directions: 'Top sliced baguette with a mix of chopped tomatoes, basil, garlic, olive oil, salt, and pepper.' },
  { title: 'Lemon Garlic Tilapia', ingredients: ['2 tilapia fillets', '2 tbsp butter', '1 lemon', '3 cloves garlic'], directions: 'Sauté tilapia in butter, add lemon juice and garlic. Serve with steamed vegetables.' },
  { title: 'Turkey and Cheese Panini', ingredients: ['4 slices bread', '150 g turkey', '4 slices cheese', '1 tbsp butter'], directions: 'Layer turkey and cheese on bread, grill in a panini press until golden.' },
  { title: 'Mango Chicken Curry', ingredients: ['500 g chicken breast', '1 onion', '2 tbsp curry powder', '400 ml coconut milk', '1 mango'], directions: 'Cook chicken pieces in a pan, add onions, garlic, and ginger. Stir in curry powder, coconut milk, and mango pieces. Simmer until chicken is cooked.' },
  { title: 'Beef Stir Fry', ingredients: ['400 g beef', '1 head broccoli', '2 bell peppers', '3 tbsp soy sauce'], directions: 'Stir-fry beef slices with broccoli, bell peppers, and onions in soy sauce and garlic. Serve over rice or noodles.' },
  { title: 'Shrimp Avocado Salad', ingredients: ['250 g shrimp', '2 avocados', '200 g cherry tomatoes', '1 lime'], directions: 'Mix cooked shrimp with avocado, tomatoes, cucumber, and onion. Dress with lime juice, olive oil, salt, and pepper.' },
  { title: 'Zucchini Noodles with Pesto', ingredients: ['3 zucchini', '1 clove garlic', '4 tbsp pesto sauce', '20 g Parmesan cheese'], directions: 'Spiralize zucchini into noodles, sauté with garlic, then mix with pesto sauce. Top with grated Parmesan cheese.' },
  { title: 'Sweet Potato Tacos', ingredients: ['2 sweet potatoes', '1 can black beans', '8 corn tortillas', '1 avocado', '1 bunch cilantro'], directions: 'Roast sweet potato cubes, mix with black beans, and use as filling for tacos. Top with avocado and cilantro lime sauce.' },
  { title: 'Salmon with Dill Sauce', ingredients: ['2 salmon fillets', '150 g Greek yogurt', '1 bunch dill', '1 lemon'], directions: 'Bake salmon fillets and serve with a sauce made from Greek yogurt, dill, lemon juice, and garlic.' },
  { title: 'Quinoa Salad with Vegetables', ingredients: ['200 g quinoa', '1 cucumber', '1 red pepper', '100 g feta cheese', '2 tbsp olive oil'], directions: 'Mix cooked quinoa with diced vegetables, feta cheese, and a lemon olive oil dressing.' },
  { title: 'Chickpea Vegetable Soup', ingredients: ['1 onion', '2 carrots', '1 can chickpeas', '1 l vegetable broth', '100 g spinach'], directions: 'Sauté onions, carrots, and celery, add broth, canned tomatoes, and chickpeas. Simmer with spinach and seasonings.' },
  { title: 'Vegetarian Chili', ingredients: ['1 onion', '2 bell peppers', '1 can kidney beans', '1 can black beans', '1 can corn', '2 tbsp chili seasoning'], directions: 'Cook onions, garlic, bell peppers, and carrots. Add canned tomatoes, kidney beans, black beans, corn, and chili seasoning. Simmer until vegetables are tender.' },
  { title: 'Caprese Salad Skewers', ingredients: ['250 g cherry tomatoes', '1 bunch basil', '200 g mozzarella balls', '2 tbsp balsamic glaze'], directions: 'Thread cherry tomatoes, basil leaves, and mozzarella balls onto skewers. Drizzle with balsamic glaze.' },
  { title: 'Chicken Alfredo Pasta', ingredients: ['300 g fettuccine', '250 ml Alfredo sauce', '2 chicken breasts', '30 g Parmesan cheese'], directions: 'Cook fettuccine pasta, toss with Alfredo sauce and grilled chicken strips. Serve with a sprinkle of Parmesan cheese.' },
  { title: 'Eggplant Parmesan', ingredients: ['2 eggplants', '100 g breadcrumbs', '500 ml marinara sauce', '200 g mozzarella cheese'], directions: 'Slice eggplant, bread, and fry. Layer in a baking dish with marinara sauce and mozzarella cheese. Bake until bubbly.' },
  { title: 'Butternut Squash Soup', ingredients: ['1 butternut squash', '1 onion', '2 cloves garlic', '1 l vegetable broth', '1 pinch nutmeg'], directions: 'Sauté onions and garlic, add cubed butternut squash and broth. Puree until smooth and season with nutmeg, salt, and pepper.' },
  { title: 'Classic Margherita Pizza', ingredients: ['1 pizza dough', '150 ml tomato sauce', '200 g mozzarella cheese', '1 bunch basil'], directions: 'Spread pizza dough with tomato sauce, top with slices of mozzarella cheese and fresh basil leaves. Bake until crust is golden.' },
  { title: 'Raspberry Almond Smoothie', ingredients: ['150 g raspberries', '300 ml almond milk', '1 banana', '1 tbsp almond butter'], directions: 'Blend together raspberries, almond milk, banana, and a scoop of almond butter until smooth.' },
  { title: 'Lentil Soup', ingredients: ['250 g lentils', '1 onion', '2 carrots', '2 stalks celery', '1 l vegetable broth'], directions: 'Cook onions, carrots, celery, garlic, and lentils in vegetable broth until lentils are tender. Season with thyme and bay leaves.' },
  { title: 'Garlic Butter Shrimp', ingredients: ['400 g shrimp', '3 tbsp butter', '4 cloves garlic', '1 bunch parsley'], directions: 'Sauté shrimp in butter and minced garlic until pink. Sprinkle with parsley and serve with lemon wedges.' },
];

export const RECIPE_DESCRIPTIONS = [
  'A quick and easy meal, perfect for busy weekdays.',
  'A delicious and healthy choice for any time of the day.',
  'An ideal recipe for experimenting with different flavors and ingredients.',
  'A family favorite that is ready in no time.',
  'Light, fresh and full of flavor.',
] as const;

export const RECIPE_DIRECTION_ADDITIONS = [
  'Try adding a pinch of your favorite spices for extra flavor.',
  'Feel free to substitute with ingredients you have on hand.',
  'Garnish with fresh herbs for a more vibrant taste.',
] as const;

export const SERVINGS_OPTIONS = ['1 serving', '2 servings', '3-4 servings', '6 servings', '8 servings'] as const;
export const PREP_TIME_OPTIONS = ['10 mins', '20 mins', '30 mins', '45 mins', '1 hrs', '2 hrs', '3 hrs', '4 hrs'] as const;
export const RECIPE_SOURCES = ['', '', 'Grandma', 'flauschcode.com', 'Cookbook', 'Food blog'] as const;

export interface RecipeDraft {
  title: string;
  description: string;
  servings: string;
  preparationTime: string;
  source: string;
  /** One ingredient a line, as Broccoli stores them. */
  ingredients: string;
  directions: string;
  favorite: boolean;
}

/** A recipe from a base, with drawn description, servings, time and direction tail. */
export function randomRecipe(rng: Rng, base: RecipeBase = rng.pick(RECIPE_BASES)): RecipeDraft {
  return {
    title: base.title,
    description: rng.pick(RECIPE_DESCRIPTIONS),
    servings: rng.pick(SERVINGS_OPTIONS),
    preparationTime: rng.pick(PREP_TIME_OPTIONS),
    source: rng.pick(RECIPE_SOURCES),
    ingredients: base.ingredients.join('\n'),
    directions: `${base.directions} ${rng.pick(RECIPE_DIRECTION_ADDITIONS)}`,
    favorite: false,
  };
}

/** `count` recipes with distinct titles (none in `avoid`). */
export function randomRecipes(rng: Rng, count: number, avoid: readonly string[] = []): RecipeDraft[] {
  const bases = rng.sample(RECIPE_BASES.filter((b) => !avoid.includes(b.title)), count);
  return bases.map((b) => randomRecipe(rng, b));
}
